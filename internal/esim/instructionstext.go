package esim

import "github.com/skygate/skygate"

// The texts of an eSIM's install instructions, one sentence a step, in every language
// of skygate.Languages. Braced names are filled by Instructions: {smdp} the SM-DP+
// address, {matching_id} the matching ID, {lpa} the whole activation code, {apn},
// {username} and {password} the package's APN. Menu paths follow the settings of
// iOS 17 and of stock Android 14 as each language's system names them; phones of
// other makers name them alike. Uzbek is in the Latin script, with ʻ (U+02BB) in oʻ
// and gʻ and ʼ (U+02BC) for the apostrophe, as elsewhere in the service.
var (
	// iosSteps are the iPhone's steps before the APN: connect, install by link or QR
	// code, install by hand, use the line for data, allow data roaming.
	iosSteps = []skygate.LocalizedText{
		{
			EN: "Connect the iPhone to Wi-Fi: it downloads the eSIM over the internet.",
			RU: "Подключите iPhone к Wi-Fi: eSIM загружается через интернет.",
			UZ: "iPhoneʼni Wi-Fi tarmogʻiga ulang: eSIM internet orqali yuklab olinadi.",
			KK: "iPhone-ды Wi-Fi желісіне қосыңыз: eSIM интернет арқылы жүктеледі.",
		},
		{
			EN: "Open the install link on the iPhone, or go to Settings → Mobile Data → Add eSIM → Use QR Code and scan the QR code shown on another screen.",
			RU: "Откройте ссылку для установки на iPhone или перейдите в Настройки → Сотовая связь → Добавить eSIM → Использовать QR-код и отсканируйте QR-код с другого экрана.",
			UZ: "Oʻrnatish havolasini iPhoneʼda oching yoki Sozlamalar → Mobil aloqa → eSIM qoʻshish → QR-koddan foydalanish boʻlimiga oʻtib, boshqa ekrandagi QR-kodni skanerlang.",
			KK: "Орнату сілтемесін iPhone-да ашыңыз немесе Параметрлер → Ұялы байланыс → eSIM қосу → QR кодын пайдалану бөліміне өтіп, басқа экрандағы QR кодын сканерлеңіз.",
		},
		{
			EN: "To enter it by hand, tap Enter Details Manually and type the SM-DP+ address {smdp} and the activation code {matching_id}.",
			RU: "Чтобы ввести данные вручную, нажмите «Ввести данные вручную» и укажите адрес SM-DP+ {smdp} и код активации {matching_id}.",
			UZ: "Qoʻlda kiritish uchun «Maʼlumotlarni qoʻlda kiritish» tugmasini bosing va SM-DP+ manzilini ({smdp}) hamda faollashtirish kodini ({matching_id}) kiriting.",
			KK: "Қолмен енгізу үшін «Деректерді қолмен енгізу» түймесін басып, SM-DP+ мекенжайын ({smdp}) және белсендіру кодын ({matching_id}) енгізіңіз.",
		},
		{
			EN: "On arrival, go to Settings → Mobile Data, choose this eSIM for mobile data and make sure Turn On This Line is on.",
			RU: "По прибытии откройте Настройки → Сотовая связь, выберите эту eSIM для сотовых данных и включите «Включить этот номер».",
			UZ: "Yetib kelgach, Sozlamalar → Mobil aloqa boʻlimida mobil internet uchun shu eSIMʼni tanlang va «Bu raqamni yoqish»ni yoqing.",
			KK: "Келген соң Параметрлер → Ұялы байланыс бөлімінде ұялы деректер үшін осы eSIM-ді таңдап, «Осы нөмірді қосу» параметрін қосыңыз.",
		},
		{
			EN: "In Settings → Mobile Data → this eSIM, turn on Data Roaming.",
			RU: "В разделе Настройки → Сотовая связь → эта eSIM включите «Роуминг данных».",
			UZ: "Sozlamalar → Mobil aloqa → shu eSIM boʻlimida «Maʼlumotlar roumingi»ni yoqing.",
			KK: "Параметрлер → Ұялы байланыс → осы eSIM бөлімінде «Деректер роумингі» параметрін қосыңыз.",
		},
	}

	// iosAPN is the iPhone's step that sets the package's APN.
	iosAPN = skygate.LocalizedText{
		EN: "Go to Settings → Mobile Data → this eSIM → Mobile Data Network and enter the APN {apn}.",
		RU: "Откройте Настройки → Сотовая связь → эта eSIM → Сотовая сеть передачи данных и укажите APN {apn}.",
		UZ: "Sozlamalar → Mobil aloqa → shu eSIM → Mobil maʼlumotlar tarmogʻi boʻlimiga oʻting va APN sifatida {apn} ni kiriting.",
		KK: "Параметрлер → Ұялы байланыс → осы eSIM → Ұялы деректер желісі бөліміне өтіп, APN ретінде {apn} енгізіңіз.",
	}

	// androidSteps are the Android phone's steps before the APN, as for the iPhone.
	androidSteps = []skygate.LocalizedText{
		{
			EN: "Connect the phone to Wi-Fi: it downloads the eSIM over the internet.",
			RU: "Подключите телефон к Wi-Fi: eSIM загружается через интернет.",
			UZ: "Telefonni Wi-Fi tarmogʻiga ulang: eSIM internet orqali yuklab olinadi.",
			KK: "Телефонды Wi-Fi желісіне қосыңыз: eSIM интернет арқылы жүктеледі.",
		},
		{
			EN: "Open the install link on the phone, or go to Settings → Network & internet → SIMs → Add eSIM and scan the QR code shown on another screen.",
			RU: "Откройте ссылку для установки на телефоне или перейдите в Настройки → Сеть и интернет → SIM-карты → Добавить eSIM и отсканируйте QR-код с другого экрана.",
			UZ: "Oʻrnatish havolasini telefonda oching yoki Sozlamalar → Tarmoq va internet → SIM-kartalar → eSIM qoʻshish boʻlimiga oʻtib, boshqa ekrandagi QR-kodni skanerlang.",
			KK: "Орнату сілтемесін телефонда ашыңыз немесе Параметрлер → Желі және интернет → SIM карталары → eSIM қосу бөліміне өтіп, басқа экрандағы QR кодын сканерлеңіз.",
		},
		{
			EN: "If you cannot scan it, choose to enter the code manually and type the activation code {lpa} (SM-DP+ address {smdp}, matching ID {matching_id}).",
			RU: "Если отсканировать не получается, выберите ввод кода вручную и введите код активации {lpa} (адрес SM-DP+ {smdp}, идентификатор Matching ID {matching_id}).",
			UZ: "Skanerlab boʻlmasa, kodni qoʻlda kiritishni tanlang va faollashtirish kodini kiriting: {lpa} (SM-DP+ manzili {smdp}, Matching ID {matching_id}).",
			KK: "Сканерлеу мүмкін болмаса, кодты қолмен енгізуді таңдап, белсендіру кодын енгізіңіз: {lpa} (SM-DP+ мекенжайы {smdp}, Matching ID {matching_id}).",
		},
		{
			EN: "On arrival, go to Settings → Network & internet → SIMs, choose this eSIM and turn on Use SIM and Mobile data.",
			RU: "По прибытии откройте Настройки → Сеть и интернет → SIM-карты, выберите эту eSIM и включите «Использовать SIM-карту» и «Мобильный интернет».",
			UZ: "Yetib kelgach, Sozlamalar → Tarmoq va internet → SIM-kartalar boʻlimida shu eSIMʼni tanlang va «SIM-kartadan foydalanish» hamda «Mobil internet»ni yoqing.",
			KK: "Келген соң Параметрлер → Желі және интернет → SIM карталары бөлімінде осы eSIM-ді таңдап, «SIM картасын пайдалану» және «Мобильді интернет» параметрлерін қосыңыз.",
		},
		{
			EN: "On the same screen, turn on Roaming.",
			RU: "На том же экране включите «Роуминг».",
			UZ: "Oʻsha ekranda «Rouming»ni yoqing.",
			KK: "Сол экранда «Роуминг» параметрін қосыңыз.",
		},
	}

	// androidAPN is the Android phone's step that sets the package's APN.
	androidAPN = skygate.LocalizedText{
		EN: "Go to Settings → Network & internet → SIMs → this eSIM → Access Point Names, tap +, enter the APN {apn}, save it and select it.",
		RU: "Откройте Настройки → Сеть и интернет → SIM-карты → эта eSIM → Точки доступа (APN), нажмите +, укажите APN {apn}, сохраните и выберите её.",
		UZ: "Sozlamalar → Tarmoq va internet → SIM-kartalar → shu eSIM → Kirish nuqtalari (APN) boʻlimida + tugmasini bosing, APN sifatida {apn} ni kiriting, saqlang va uni tanlang.",
		KK: "Параметрлер → Желі және интернет → SIM карталары → осы eSIM → Кіру нүктелері (APN) бөлімінде + түймесін басып, APN ретінде {apn} енгізіңіз, сақтап, оны таңдаңыз.",
	}

	// apnUsername and apnPassword follow the APN step when the APN has them.
	apnUsername = skygate.LocalizedText{
		EN: "Username: {username}.",
		RU: "Имя пользователя: {username}.",
		UZ: "Foydalanuvchi nomi: {username}.",
		KK: "Пайдаланушы аты: {username}.",
	}
	apnPassword = skygate.LocalizedText{
		EN: "Password: {password}.",
		RU: "Пароль: {password}.",
		UZ: "Parol: {password}.",
		KK: "Құпиясөз: {password}.",
	}
)
